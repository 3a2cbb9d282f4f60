SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[name] AS [name], JSON_QUERY((
      SELECT COUNT(*) AS [aggregate.count]
      FROM (
        SELECT 1 AS [__one]
        FROM [dbo].[albums] AS [_2]
        WHERE [_2].[artist_id] = [_1].[id]) AS [_3] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [albums_aggregate], JSON_QUERY(ISNULL((
      SELECT [_5].[title] AS [title], JSON_QUERY((
        SELECT COUNT(*) AS [aggregate.count], SUM([_7].[milliseconds]) AS [aggregate.sum.milliseconds]
        FROM (
          SELECT [_6].[milliseconds] AS [milliseconds]
          FROM [dbo].[tracks] AS [_6]
          WHERE [_6].[album_id] = [_5].[id]) AS [_7] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [tracks_aggregate]
      FROM (
        SELECT [_4].[title] AS [title], [_4].[id] AS [id]
        FROM [dbo].[albums] AS [_4]
        WHERE [_4].[artist_id] = [_1].[id]
        ORDER BY (
          SELECT NULL) OFFSET 0 ROWS FETCH NEXT @p1 ROWS ONLY) AS [_5] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [albums]
    FROM (
      SELECT [_0].[name] AS [name], [_0].[id] AS [id]
      FROM [dbo].[artists] AS [_0]
      ORDER BY [_0].[id] ASC OFFSET 0 ROWS FETCH NEXT @p2 ROWS ONLY) AS [_1]
    ORDER BY [_1].[id] ASC FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [artists] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":3},{"kind":"const","value":100}]
-- types: ["bigint","bigint"]
