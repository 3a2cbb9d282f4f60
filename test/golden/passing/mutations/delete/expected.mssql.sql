SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[artists] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[artists] AS [_t]; DELETE [_0] OUTPUT DELETED.*, CAST(0 AS BIGINT), N'DELETE' INTO [#written]
FROM [dbo].[artists] AS [_0]
WHERE ([_0].[name] LIKE @p1);
SELECT (
  SELECT (
    SELECT COUNT(*)
    FROM [#written]) AS [affected_rows], JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id]
    FROM [#written] AS [_1]
    ORDER BY [_1].[__ord] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [returning] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":"A%"}]
-- types: ["nvarchar"]

SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[genres] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[genres] AS [_t]; DELETE [_0] OUTPUT DELETED.*, CAST(0 AS BIGINT), N'DELETE' INTO [#written]
FROM [dbo].[genres] AS [_0]
WHERE ([_0].[id] = @p1);
SELECT (
  SELECT TOP (1) [_1].[name] AS [name]
  FROM [#written] AS [_1]
  ORDER BY [_1].[__ord] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":3}]
-- types: ["int"]
