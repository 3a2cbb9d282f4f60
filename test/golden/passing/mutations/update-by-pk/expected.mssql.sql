SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[albums] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[albums] AS [_t]; UPDATE [_0]
SET [title] = [_1].[title] OUTPUT INSERTED.*, CAST(0 AS BIGINT), N'UPDATE' INTO [#written]
FROM [dbo].[albums] AS [_0] CROSS APPLY OPENJSON(@p1) WITH ([title] NVARCHAR(MAX) N'$."title"') AS [_1]
WHERE ([_0].[id] = @p2);
SELECT (
  SELECT TOP (1) [_2].[id] AS [id], [_2].[title] AS [title]
  FROM [#written] AS [_2]
  ORDER BY [_2].[__ord] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"variable","name":"set","encoding":"json","allowNull":true},{"kind":"variable","name":"id","encoding":"plain","allowNull":false}]
-- types: ["nvarchar","int"]
