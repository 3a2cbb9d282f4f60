SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[tracks] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[tracks] AS [_t]; UPDATE [_0]
SET [name] = [_1].[name] OUTPUT INSERTED.*, CAST(0 AS BIGINT), N'UPDATE' INTO [#written]
FROM [dbo].[tracks] AS [_0] CROSS APPLY OPENJSON(@p1) WITH ([name] NVARCHAR(MAX) N'$."name"') AS [_1]
WHERE ([_0].[id] = @p2);
SELECT (
  SELECT (
    SELECT COUNT(*)
    FROM [#written]) AS [affected_rows] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":"{\"name\":\"a\"}"},{"kind":"const","value":1}]
-- types: ["nvarchar","int"]

SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[tracks] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[tracks] AS [_t]; UPDATE [_0]
SET [milliseconds] = [_0].[milliseconds] + [_1].[milliseconds] OUTPUT INSERTED.*, CAST(0 AS BIGINT), N'UPDATE' INTO [#written]
FROM [dbo].[tracks] AS [_0] CROSS APPLY OPENJSON(@p1) WITH ([milliseconds] NVARCHAR(MAX) N'$."milliseconds"') AS [_1]
WHERE ([_0].[id] = @p2);
SELECT (
  SELECT (
    SELECT COUNT(*)
    FROM [#written]) AS [affected_rows] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":"{\"milliseconds\":1}"},{"kind":"const","value":2}]
-- types: ["nvarchar","int"]
