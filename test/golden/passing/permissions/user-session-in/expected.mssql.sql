SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id], [_1].[name] AS [name], JSON_QUERY((
      SELECT TOP (1) [_3].[title] AS [title], JSON_QUERY((
        SELECT TOP (1) [_6].[name] AS [name]
        FROM (
          SELECT [_5].[name] AS [name]
          FROM [dbo].[artists] AS [_5]
          WHERE [_5].[id] = [_3].[artist_id]) AS [_6] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [artist]
      FROM (
        SELECT [_2].[title] AS [title], [_2].[artist_id] AS [artist_id]
        FROM [dbo].[albums] AS [_2]
        WHERE ([_2].[id] = [_1].[album_id] AND EXISTS (
          SELECT 1
          FROM [dbo].[artists] AS [_4]
          WHERE ([_4].[id] = [_2].[artist_id] AND ([_4].[id] = @p1))))) AS [_3] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [album]
    FROM (
      SELECT [_0].[id] AS [id], [_0].[name] AS [name], [_0].[album_id] AS [album_id]
      FROM [dbo].[tracks] AS [_0]
      WHERE ([_0].[album_id] IN (
        SELECT [value]
        FROM OPENJSON(@p2)))) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [tracks], JSON_QUERY((
    SELECT COUNT(*) AS [aggregate.count], JSON_QUERY(ISNULL((
      SELECT [_10].[name] AS [name]
      FROM (
        SELECT [_9].[name] AS [name]
        FROM [dbo].[artists] AS [_9]) AS [_10] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [nodes]
    FROM (
      SELECT 1 AS [__one]
      FROM [dbo].[artists] AS [_7]) AS [_8] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [artists_aggregate] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"session","name":"x-engine-user-id","encoding":"plain"},{"kind":"const","value":[1,2]}]
-- types: ["int","int[]"]
