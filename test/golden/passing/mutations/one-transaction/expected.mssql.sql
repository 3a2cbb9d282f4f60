SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[tracks] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[tracks] AS [_t]; MERGE INTO [dbo].[tracks] AS [_t] USING (
  SELECT [_r].[album_id] AS [album_id], [_r].[id] AS [id], [_r].[name] AS [name], CAST([_j].[key] AS BIGINT) AS [__ord]
  FROM OPENJSON(@p1) AS [_j] CROSS APPLY OPENJSON([_j].[value]) WITH ([album_id] NVARCHAR(MAX) N'$."album_id"', [id] NVARCHAR(MAX) N'$."id"', [name] NVARCHAR(MAX) N'$."name"') AS [_r]) AS [_s] ON (1 = 0) WHEN NOT MATCHED THEN INSERT ([album_id], [id], [name]) VALUES ([_s].[album_id], [_s].[id], [_s].[name]) OUTPUT INSERTED.*, [_s].[__ord], $action INTO [#written];
SELECT (
  SELECT (
    SELECT COUNT(*)
    FROM [#written]) AS [affected_rows], JSON_QUERY(ISNULL((
    SELECT [_0].[id] AS [id]
    FROM [#written] AS [_0]
    ORDER BY [_0].[__ord] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [returning] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"variable","name":"rows","encoding":"json","allowNull":true}]
-- types: ["nvarchar"]

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
  SELECT TOP (1) [_2].[id] AS [id]
  FROM [#written] AS [_2]
  ORDER BY [_2].[__ord] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":"{\"name\":\"y\"}"},{"kind":"const","value":1}]
-- types: ["nvarchar","int"]

SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[tracks] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[tracks] AS [_t]; DELETE [_0] OUTPUT DELETED.*, CAST(0 AS BIGINT), N'DELETE' INTO [#written]
FROM [dbo].[tracks] AS [_0]
WHERE ([_0].[id] > @p1);
SELECT (
  SELECT (
    SELECT COUNT(*)
    FROM [#written]) AS [affected_rows] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":100}]
-- types: ["int"]
