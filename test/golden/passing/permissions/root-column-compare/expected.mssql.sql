SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id], [_1].[album_id] AS [album_id]
    FROM (
      SELECT [_0].[id] AS [id], [_0].[album_id] AS [album_id]
      FROM [dbo].[tracks] AS [_0]
      WHERE (EXISTS (
        SELECT 1
        FROM [dbo].[albums] AS [_2]
        WHERE ([_2].[id] = [_0].[album_id] AND (([_2].[id] = [_0].[album_id]) AND ([_2].[artist_id] < [_0].[milliseconds])))) AND EXISTS (
        SELECT 1
        FROM [dbo].[albums] AS [_3]
        WHERE ([_3].[id] = [_0].[album_id] AND (EXISTS (
          SELECT 1
          FROM [dbo].[tracks] AS [_4]
          WHERE ([_4].[album_id] = [_3].[id] AND ([_4].[album_id] = [_3].[id]))) AND ([_3].[title] LIKE @p1)))))) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [tracks] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":"A%"}]
-- types: ["nvarchar"]
