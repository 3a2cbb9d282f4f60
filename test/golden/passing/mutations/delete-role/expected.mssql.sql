SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[tracks] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[tracks] AS [_t]; DELETE [_0] OUTPUT DELETED.*, CAST(0 AS BIGINT), N'DELETE' INTO [#written]
FROM [dbo].[tracks] AS [_0]
WHERE EXISTS (
  SELECT 1
  FROM [dbo].[albums] AS [_1]
  WHERE ([_1].[id] = [_0].[album_id] AND ([_1].[artist_id] = @p1)));
SELECT (
  SELECT (
    SELECT COUNT(*)
    FROM [#written]) AS [affected_rows] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"session","name":"x-engine-user-id","encoding":"plain"}]
-- types: ["int"]
