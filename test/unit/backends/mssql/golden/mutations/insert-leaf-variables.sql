SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [public].[albums] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [public].[albums] AS [_t]; MERGE INTO [public].[albums] AS [_t] USING (
  SELECT [_r].[color] AS [color], [_r].[id] AS [id], [_r].[meta] AS [meta], [_r].[title] AS [title], CAST([_j].[key] AS BIGINT) AS [__ord]
  FROM OPENJSON(@p1) AS [_j] CROSS APPLY OPENJSON([_j].[value]) WITH ([color] VARCHAR(MAX) N'$."color"', [id] NVARCHAR(MAX) N'$."id"', [meta] NVARCHAR(MAX) N'$."meta"', [title] VARCHAR(MAX) N'$."title"') AS [_r]) AS [_s] ON (1 = 0) WHEN NOT MATCHED THEN INSERT ([color], [id], [meta], [title]) VALUES ([_s].[color], [_s].[id], [_s].[meta], [_s].[title]) OUTPUT INSERTED.*, [_s].[__ord], $action INTO [#written];
SELECT (
  SELECT TOP (1) [_0].[id] AS [id]
  FROM [#written] AS [_0]
  ORDER BY [_0].[__ord] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"json-doc","doc":{"kind":"array","items":[{"kind":"object","fields":[["id",{"kind":"const","value":1}],["title",{"kind":"variable","name":"title"}],["meta",{"kind":"variable","name":"meta"}],["color",{"kind":"const","value":"red"}]]}]}}]
-- types: ["nvarchar"]
