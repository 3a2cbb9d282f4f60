SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id], [_1].[title] AS [title]
    FROM (
      SELECT [_0].[id] AS [id], [_0].[title] AS [title], [_0].[artist_id] AS [artist_id], (
        SELECT TOP (1) [_2].[name]
        FROM [dbo].[artists] AS [_2]
        WHERE [_2].[id] = [_0].[artist_id]) AS [__o0], (
        SELECT COUNT(*)
        FROM [dbo].[tracks] AS [_4]
        WHERE [_4].[album_id] = [_0].[id]) AS [__o1]
      FROM [dbo].[albums] AS [_0]
      ORDER BY (CASE WHEN [_0].[artist_id] IS NULL THEN 1 ELSE 0 END) ASC, [_0].[artist_id] ASC, (CASE WHEN [_0].[title] IS NULL THEN 0 ELSE 1 END) ASC, [_0].[title] DESC, (
        SELECT TOP (1) [_3].[name]
        FROM [dbo].[artists] AS [_3]
        WHERE [_3].[id] = [_0].[artist_id]) DESC, (
        SELECT COUNT(*)
        FROM [dbo].[tracks] AS [_5]
        WHERE [_5].[album_id] = [_0].[id]) ASC OFFSET @p1 ROWS FETCH NEXT @p2 ROWS ONLY) AS [_1]
    ORDER BY (CASE WHEN [_1].[artist_id] IS NULL THEN 1 ELSE 0 END) ASC, [_1].[artist_id] ASC, (CASE WHEN [_1].[title] IS NULL THEN 0 ELSE 1 END) ASC, [_1].[title] DESC, [_1].[__o0] DESC, [_1].[__o1] ASC FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [albums] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":1},{"kind":"const","value":2}]
-- types: ["bigint","bigint"]
