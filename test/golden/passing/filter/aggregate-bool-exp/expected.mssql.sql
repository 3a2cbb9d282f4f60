SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id]
    FROM (
      SELECT [_0].[id] AS [id]
      FROM [dbo].[artists] AS [_0]
      WHERE EXISTS (
        SELECT 1
        FROM (
          SELECT COUNT(*) AS [aggregate_value]
          FROM [dbo].[albums] AS [_2]
          WHERE ([_2].[artist_id] = [_0].[id] AND ([_2].[title] LIKE @p1))) AS [_3]
        WHERE ([_3].[aggregate_value] > @p2))) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [artists], JSON_QUERY(ISNULL((
    SELECT [_5].[id] AS [id]
    FROM (
      SELECT [_4].[id] AS [id]
      FROM [dbo].[artists] AS [_4]
      WHERE EXISTS (
        SELECT 1
        FROM (
          SELECT COUNT(DISTINCT [_6].[title]) AS [aggregate_value]
          FROM [dbo].[albums] AS [_6]
          WHERE [_6].[artist_id] = [_4].[id]) AS [_7]
        WHERE ([_7].[aggregate_value] = @p3))) AS [_5] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [distinct] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":"A%"},{"kind":"const","value":1},{"kind":"const","value":2}]
-- types: ["nvarchar","int","int"]
