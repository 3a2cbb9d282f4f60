SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id], [_1].[title] AS [title], JSON_QUERY((
      SELECT TOP (1) [_4].[name] AS [name]
      FROM (
        SELECT [_3].[name] AS [name]
        FROM [dbo].[artists] AS [_3]
        WHERE [_3].[id] = [_1].[artist_id]) AS [_4] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [artist], JSON_QUERY(ISNULL((
      SELECT [_6].[name] AS [name]
      FROM (
        SELECT [_5].[name] AS [name]
        FROM [dbo].[tracks] AS [_5]
        WHERE [_5].[album_id] = [_1].[id]) AS [_6] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [tracks]
    FROM (
      SELECT [_0].[id] AS [id], [_0].[title] AS [title], [_0].[artist_id] AS [artist_id]
      FROM [dbo].[albums] AS [_0]
      WHERE EXISTS (
        SELECT 1
        FROM [dbo].[artists] AS [_2]
        WHERE ([_2].[id] = [_0].[artist_id] AND ([_2].[id] = @p1)))
      ORDER BY (
        SELECT NULL) OFFSET 0 ROWS FETCH NEXT (
        SELECT MIN([v])
        FROM (VALUES (@p2), (@p3)) AS [_l]([v])) ROWS ONLY) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [albums], JSON_QUERY((
    SELECT COUNT(*) AS [aggregate.count]
    FROM (
      SELECT 1 AS [__one]
      FROM [dbo].[artists] AS [_7]) AS [_8] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [artists_aggregate] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"session","name":"x-engine-user-id","encoding":"plain"},{"kind":"const","value":50},{"kind":"const","value":10}]
-- types: ["int","bigint","bigint"]
