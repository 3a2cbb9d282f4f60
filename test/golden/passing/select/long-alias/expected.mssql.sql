SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id], [_1].[title] AS [a_key_that_is_longer_than_sixty_three_bytes_which_postgres_would_truncate], JSON_QUERY((
      SELECT TOP (1) [_3].[id] AS [id], [_3].[name] AS [name]
      FROM (
        SELECT [_2].[id] AS [id], [_2].[name] AS [name]
        FROM [dbo].[artists] AS [_2]
        WHERE [_2].[id] = [_1].[artist_id]) AS [_3] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [artist]
    FROM (
      SELECT [_0].[id] AS [id], [_0].[title] AS [title], [_0].[artist_id] AS [artist_id]
      FROM [dbo].[albums] AS [_0]
      ORDER BY [_0].[id] ASC OFFSET 0 ROWS FETCH NEXT @p1 ROWS ONLY) AS [_1]
    ORDER BY [_1].[id] ASC FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [albums] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":2}]
-- types: ["bigint"]
