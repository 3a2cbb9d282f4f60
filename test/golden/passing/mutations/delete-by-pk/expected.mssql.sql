SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[tracks] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[tracks] AS [_t]; DELETE [_0] OUTPUT DELETED.*, CAST(0 AS BIGINT), N'DELETE' INTO [#written]
FROM [dbo].[tracks] AS [_0]
WHERE ([_0].[id] = @p1);
SELECT (
  SELECT TOP (1) [_1].[id] AS [id], [_1].[name] AS [name], JSON_QUERY((
    SELECT TOP (1) [_3].[title] AS [title]
    FROM (
      SELECT [_2].[title] AS [title]
      FROM [dbo].[albums] AS [_2]
      WHERE [_2].[id] = [_1].[album_id]) AS [_3] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [album]
  FROM [#written] AS [_1]
  ORDER BY [_1].[__ord] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":1}]
-- types: ["int"]
