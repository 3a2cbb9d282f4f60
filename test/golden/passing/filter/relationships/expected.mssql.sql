SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id], JSON_QUERY(ISNULL((
      SELECT [_5].[id] AS [id]
      FROM (
        SELECT [_4].[id] AS [id]
        FROM [dbo].[albums] AS [_4]
        WHERE ([_4].[artist_id] = [_1].[id] AND EXISTS (
          SELECT 1
          FROM [dbo].[artists] AS [_6]
          WHERE ([_6].[id] = [_4].[artist_id] AND ([_6].[name] <> @p1))))) AS [_5] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [albums]
    FROM (
      SELECT [_0].[id] AS [id]
      FROM [dbo].[artists] AS [_0]
      WHERE EXISTS (
        SELECT 1
        FROM [dbo].[albums] AS [_2]
        WHERE ([_2].[artist_id] = [_0].[id] AND EXISTS (
          SELECT 1
          FROM [dbo].[tracks] AS [_3]
          WHERE ([_3].[album_id] = [_2].[id] AND ([_3].[name] = @p2)))))) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [artists] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":"y"},{"kind":"const","value":"x"}]
-- types: ["nvarchar","nvarchar"]
