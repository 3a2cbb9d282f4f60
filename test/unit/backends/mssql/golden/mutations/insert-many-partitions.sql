SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [public].[artists] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [public].[artists] AS [_t]; MERGE INTO [public].[artists] AS [_t] USING (
  SELECT [_r].[id] AS [id], [_r].[name] AS [name], CAST([_j].[key] AS BIGINT) AS [__ord]
  FROM OPENJSON(@p1) AS [_j] CROSS APPLY OPENJSON([_j].[value]) WITH ([id] NVARCHAR(MAX) N'$."id"', [name] VARCHAR(MAX) N'$."name"') AS [_r]
  WHERE EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'id') AND EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'name') AND NOT EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'tags')) AS [_s] ON (1 = 0) WHEN NOT MATCHED THEN INSERT ([id], [name]) VALUES ([_s].[id], [_s].[name]) OUTPUT INSERTED.*, [_s].[__ord], $action INTO [#written]; MERGE INTO [public].[artists] AS [_t] USING (
  SELECT [_r].[id] AS [id], CAST([_j].[key] AS BIGINT) AS [__ord]
  FROM OPENJSON(@p2) AS [_j] CROSS APPLY OPENJSON([_j].[value]) WITH ([id] NVARCHAR(MAX) N'$."id"') AS [_r]
  WHERE EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'id') AND NOT EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'name') AND NOT EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'tags')) AS [_s] ON (1 = 0) WHEN NOT MATCHED THEN INSERT ([id]) VALUES ([_s].[id]) OUTPUT INSERTED.*, [_s].[__ord], $action INTO [#written]; MERGE INTO [public].[artists] AS [_t] USING (
  SELECT [_r].[id] AS [id], [_r].[name] AS [name], [_r].[tags] AS [tags], CAST([_j].[key] AS BIGINT) AS [__ord]
  FROM OPENJSON(@p3) AS [_j] CROSS APPLY OPENJSON([_j].[value]) WITH ([id] NVARCHAR(MAX) N'$."id"', [name] VARCHAR(MAX) N'$."name"', [tags] NVARCHAR(MAX) N'$."tags"') AS [_r]
  WHERE EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'id') AND EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'name') AND EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'tags')) AS [_s] ON (1 = 0) WHEN NOT MATCHED THEN INSERT ([id], [name], [tags]) VALUES ([_s].[id], [_s].[name], [_s].[tags]) OUTPUT INSERTED.*, [_s].[__ord], $action INTO [#written];
SELECT (
  SELECT (
    SELECT COUNT(*)
    FROM [#written]) AS [affected_rows], JSON_QUERY(ISNULL((
    SELECT [_0].[id] AS [id], [_0].[name] AS [name]
    FROM [#written] AS [_0]
    ORDER BY [_0].[__ord] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [returning] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":"[{\"id\":1,\"name\":\"Ann\"},{\"id\":2},{\"id\":3,\"name\":\"Cid\",\"tags\":[\"a\",\"b\"]}]"},{"kind":"const","value":"[{\"id\":1,\"name\":\"Ann\"},{\"id\":2},{\"id\":3,\"name\":\"Cid\",\"tags\":[\"a\",\"b\"]}]"},{"kind":"const","value":"[{\"id\":1,\"name\":\"Ann\"},{\"id\":2},{\"id\":3,\"name\":\"Cid\",\"tags\":[\"a\",\"b\"]}]"}]
-- types: ["nvarchar","nvarchar","nvarchar"]
