SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[title] AS [title], [_1].[title] AS [t]
    FROM (
      SELECT [_0].[title] AS [title]
      FROM [dbo].[albums] AS [_0]) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [albums] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: []
-- types: []
