SELECT (
  SELECT JSON_QUERY((
    SELECT N'tracks_aggregate' AS [__typename], N'tracks_aggregate_fields' AS [aggregate.__typename], COUNT(DISTINCT [_1].[album_id]) AS [aggregate.count], AVG(CAST([_1].[milliseconds] AS FLOAT)) AS [aggregate.avg.milliseconds], STDEVP([_1].[milliseconds]) AS [aggregate.stddev_pop.milliseconds], VAR([_1].[milliseconds]) AS [aggregate.var_samp.milliseconds], N'tracks_max_fields' AS [aggregate.max.__typename], MAX([_1].[name]) AS [aggregate.max.name], MAX([_1].[milliseconds]) AS [aggregate.max.milliseconds], JSON_QUERY(ISNULL((
      SELECT [_3].[name] AS [name], JSON_QUERY((
        SELECT TOP (1) [_5].[title] AS [title]
        FROM (
          SELECT [_4].[title] AS [title]
          FROM [dbo].[albums] AS [_4]
          WHERE [_4].[id] = [_3].[album_id]) AS [_5] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [album]
      FROM (
        SELECT [_2].[name] AS [name], [_2].[album_id] AS [album_id]
        FROM [dbo].[tracks] AS [_2]
        WHERE ([_2].[milliseconds] > @p1)
        ORDER BY [_2].[name] ASC OFFSET 0 ROWS FETCH NEXT @p2 ROWS ONLY) AS [_3]
      ORDER BY [_3].[name] ASC FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [nodes]
    FROM (
      SELECT [_0].[album_id] AS [album_id], [_0].[milliseconds] AS [milliseconds], [_0].[name] AS [name]
      FROM [dbo].[tracks] AS [_0]
      WHERE ([_0].[milliseconds] > @p3)
      ORDER BY [_0].[name] ASC OFFSET 0 ROWS FETCH NEXT @p4 ROWS ONLY) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [tracks_aggregate] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":1000},{"kind":"const","value":5},{"kind":"const","value":1000},{"kind":"const","value":5}]
-- types: ["int","bigint","int","bigint"]
