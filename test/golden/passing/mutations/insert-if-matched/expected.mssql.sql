SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[artists] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[artists] AS [_t]; MERGE INTO [dbo].[artists] WITH (HOLDLOCK) AS [_t] USING (
  SELECT [_r].[id] AS [id], [_r].[name] AS [name], CAST([_j].[key] AS BIGINT) AS [__ord]
  FROM OPENJSON(@p1) AS [_j] CROSS APPLY OPENJSON([_j].[value]) WITH ([id] NVARCHAR(MAX) N'$."id"', [name] NVARCHAR(MAX) N'$."name"') AS [_r]) AS [_s] ON ([_t].[id] = [_s].[id]) WHEN MATCHED AND ([_t].[name] <> @p2) THEN UPDATE
SET [name] = [_s].[name] WHEN NOT MATCHED THEN INSERT ([id], [name]) VALUES ([_s].[id], [_s].[name]) OUTPUT INSERTED.*, [_s].[__ord], $action INTO [#written];
SELECT (
  SELECT (
    SELECT COUNT(*)
    FROM [#written]) AS [affected_rows] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":"[{\"id\":1,\"name\":\"Ann\"}]"},{"kind":"const","value":"locked"}]
-- types: ["nvarchar","nvarchar"]

SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[artists] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[artists] AS [_t]; MERGE INTO [dbo].[artists] WITH (HOLDLOCK) AS [_t] USING (
  SELECT [_r].[id] AS [id], [_r].[name] AS [name], CAST([_j].[key] AS BIGINT) AS [__ord]
  FROM OPENJSON(@p1) AS [_j] CROSS APPLY OPENJSON([_j].[value]) WITH ([id] NVARCHAR(MAX) N'$."id"', [name] NVARCHAR(MAX) N'$."name"') AS [_r]) AS [_s] ON ([_t].[name] = [_s].[name]) WHEN NOT MATCHED THEN INSERT ([id], [name]) VALUES ([_s].[id], [_s].[name]) OUTPUT INSERTED.*, [_s].[__ord], $action INTO [#written];
SELECT (
  SELECT TOP (1) [_0].[id] AS [id]
  FROM [#written] AS [_0]
  ORDER BY [_0].[__ord] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":"[{\"id\":2,\"name\":\"Bo\"}]"}]
-- types: ["nvarchar"]

SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[genres] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[genres] AS [_t]; MERGE INTO [dbo].[genres] WITH (HOLDLOCK) AS [_t] USING (
  SELECT [_r].[id] AS [id], [_r].[name] AS [name], CAST([_j].[key] AS BIGINT) AS [__ord]
  FROM OPENJSON(@p1) AS [_j] CROSS APPLY OPENJSON([_j].[value]) WITH ([id] NVARCHAR(MAX) N'$."id"', [name] NVARCHAR(MAX) N'$."name"') AS [_r]) AS [_s] ON (1 = 0) WHEN MATCHED THEN UPDATE
SET [name] = [_s].[name] WHEN NOT MATCHED THEN INSERT ([id], [name]) VALUES ([_s].[id], [_s].[name]) OUTPUT INSERTED.*, [_s].[__ord], $action INTO [#written];
SELECT (
  SELECT TOP (1) [_0].[id] AS [id]
  FROM [#written] AS [_0]
  ORDER BY [_0].[__ord] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":"[{\"id\":1,\"name\":\"Rock\"}]"}]
-- types: ["nvarchar"]
