SELECT (
  SELECT JSON_QUERY((
    SELECT COUNT(*) AS [aggregate.count], COUNT(DISTINCT [_1].[album_id]) AS [aggregate.c2], SUM([_1].[milliseconds]) AS [aggregate.sum.milliseconds], SUM([_1].[bytes]) AS [aggregate.sum.bytes], AVG(CAST([_1].[unit_price] AS FLOAT)) AS [aggregate.avg.unit_price], MAX([_1].[name]) AS [aggregate.max.name], JSON_QUERY(ISNULL((
      SELECT [_3].[id] AS [id]
      FROM (
        SELECT [_2].[id] AS [id]
        FROM [dbo].[tracks] AS [_2]
        WHERE ([_2].[milliseconds] > @p1)) AS [_3] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [nodes]
    FROM (
      SELECT [_0].[album_id] AS [album_id], [_0].[milliseconds] AS [milliseconds], [_0].[bytes] AS [bytes], [_0].[unit_price] AS [unit_price], [_0].[name] AS [name]
      FROM [dbo].[tracks] AS [_0]
      WHERE ([_0].[milliseconds] > @p2)) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [tracks_aggregate] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":1000},{"kind":"const","value":1000}]
-- types: ["int","int"]
