SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT CONVERT(NVARCHAR(MAX), [_1].[bytes]) AS [bytes], CONVERT(NVARCHAR(MAX), [_1].[unit_price]) AS [unit_price], [_1].[milliseconds] AS [milliseconds]
    FROM (
      SELECT [_0].[bytes] AS [bytes], [_0].[unit_price] AS [unit_price], [_0].[milliseconds] AS [milliseconds]
      FROM [dbo].[tracks] AS [_0]) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [tracks], JSON_QUERY((
    SELECT CONVERT(NVARCHAR(MAX), SUM([_3].[bytes])) AS [aggregate.sum.bytes]
    FROM (
      SELECT [_2].[bytes] AS [bytes]
      FROM [dbo].[tracks] AS [_2]) AS [_3] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [tracks_aggregate] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: []
-- types: []
