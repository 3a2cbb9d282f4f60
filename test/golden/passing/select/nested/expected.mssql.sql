SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id], [_1].[title] AS [title], JSON_QUERY((
      SELECT TOP (1) [_3].[id] AS [id], [_3].[name] AS [name]
      FROM (
        SELECT [_2].[id] AS [id], [_2].[name] AS [name]
        FROM [dbo].[artists] AS [_2]
        WHERE [_2].[id] = [_1].[artist_id]) AS [_3] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [artist], JSON_QUERY(ISNULL((
      SELECT [_5].[id] AS [id], [_5].[name] AS [name], [_5].[milliseconds] AS [milliseconds], JSON_QUERY((
        SELECT TOP (1) [_7].[name] AS [name]
        FROM (
          SELECT [_6].[name] AS [name]
          FROM [dbo].[genres] AS [_6]
          WHERE [_6].[id] = [_5].[genre_id]) AS [_7] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [genre]
      FROM (
        SELECT [_4].[id] AS [id], [_4].[name] AS [name], [_4].[milliseconds] AS [milliseconds], [_4].[genre_id] AS [genre_id]
        FROM [dbo].[tracks] AS [_4]
        WHERE [_4].[album_id] = [_1].[id]) AS [_5]
      ORDER BY [_5].[id] ASC FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [tracks]
    FROM (
      SELECT [_0].[id] AS [id], [_0].[title] AS [title], [_0].[artist_id] AS [artist_id]
      FROM [dbo].[albums] AS [_0]
      ORDER BY [_0].[id] ASC OFFSET 0 ROWS FETCH NEXT @p1 ROWS ONLY) AS [_1]
    ORDER BY [_1].[id] ASC FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [albums] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":50}]
-- types: ["bigint"]
