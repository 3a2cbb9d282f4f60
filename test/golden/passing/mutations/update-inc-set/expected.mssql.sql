SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[tracks] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[tracks] AS [_t]; UPDATE [_0]
SET [milliseconds] = [_0].[milliseconds] + [_1].[milliseconds], [name] = [_2].[name] OUTPUT INSERTED.*, CAST(0 AS BIGINT), N'UPDATE' INTO [#written]
FROM [dbo].[tracks] AS [_0] CROSS APPLY OPENJSON(@p1) WITH ([milliseconds] NVARCHAR(MAX) N'$."milliseconds"') AS [_1] CROSS APPLY OPENJSON(@p2) WITH ([name] NVARCHAR(MAX) N'$."name"') AS [_2]
WHERE ([_0].[id] = @p3);
SELECT (
  SELECT (
    SELECT COUNT(*)
    FROM [#written]) AS [affected_rows], JSON_QUERY(ISNULL((
    SELECT [_3].[id] AS [id], [_3].[name] AS [name], [_3].[milliseconds] AS [milliseconds], JSON_QUERY((
      SELECT TOP (1) [_5].[title] AS [title]
      FROM (
        SELECT [_4].[title] AS [title]
        FROM [dbo].[albums] AS [_4]
        WHERE [_4].[id] = [_3].[album_id]) AS [_5] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [album]
    FROM [#written] AS [_3]
    ORDER BY [_3].[__ord] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [returning] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":"{\"milliseconds\":10}"},{"kind":"const","value":"{\"name\":\"x\"}"},{"kind":"const","value":1}]
-- types: ["nvarchar","nvarchar","int"]
