SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id], [_1].[title] AS [title]
    FROM (
      SELECT [_0].[id] AS [id], [_0].[title] AS [title]
      FROM [dbo].[albums] AS [_0]
      WHERE (([_0].[title] LIKE @p1) AND ([_0].[id] > @p2))
      ORDER BY [_0].[title] DESC, [_0].[id] ASC OFFSET @p3 ROWS FETCH NEXT @p4 ROWS ONLY) AS [_1]
    ORDER BY [_1].[title] DESC, [_1].[id] ASC FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [albums] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":"%Rock%"},{"kind":"const","value":3},{"kind":"const","value":5},{"kind":"const","value":10}]
-- types: ["nvarchar","int","bigint","bigint"]
