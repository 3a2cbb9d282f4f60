SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id], [_1].[total] AS [total], [_1].[placed_at] AS [placedAt]
    FROM (
      SELECT [_0].[id] AS [id], [_0].[total] AS [total], [_0].[placed_at] AS [placed_at]
      FROM [shop].[orders] AS [_0]
      WHERE ([_0].[placed_at] >= @p1)) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [shop_orders] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":"2020-01-01"}]
-- types: ["datetimeoffset"]
