SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[albums] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[albums] AS [_t]; MERGE INTO [dbo].[albums] AS [_t] USING (
  SELECT [_r].[id] AS [id], [_r].[meta] AS [meta], [_r].[title] AS [title], CAST([_j].[key] AS BIGINT) AS [__ord]
  FROM OPENJSON(@p1) AS [_j] CROSS APPLY OPENJSON([_j].[value]) WITH ([id] NVARCHAR(MAX) N'$."id"', [meta] NVARCHAR(MAX) N'$."meta"', [title] NVARCHAR(MAX) N'$."title"') AS [_r]) AS [_s] ON (1 = 0) WHEN NOT MATCHED THEN INSERT ([id], [meta], [title]) VALUES ([_s].[id], [_s].[meta], [_s].[title]) OUTPUT INSERTED.*, [_s].[__ord], $action INTO [#written];
SELECT (
  SELECT (
    SELECT COUNT(*)
    FROM [#written]) AS [affected_rows] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"variable","name":"rows","encoding":"json","allowNull":true}]
-- types: ["nvarchar"]
