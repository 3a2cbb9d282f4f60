SELECT (
  SELECT @p1 AS [__typename], JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id]
    FROM (
      SELECT [_0].[id] AS [id]
      FROM [dbo].[albums] AS [_0]
      ORDER BY (
        SELECT NULL) OFFSET 0 ROWS FETCH NEXT @p2 ROWS ONLY) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [a], JSON_QUERY(ISNULL((
    SELECT [_3].[name] AS [name]
    FROM (
      SELECT [_2].[name] AS [name]
      FROM [dbo].[genres] AS [_2]) AS [_3] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [genres], JSON_QUERY((
    SELECT TOP (1) [_5].[name] AS [name]
    FROM (
      SELECT [_4].[name] AS [name]
      FROM [dbo].[genres] AS [_4]
      WHERE ([_4].[id] = @p3)) AS [_5] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [g2] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":"query_root"},{"kind":"const","value":1},{"kind":"const","value":2}]
-- types: ["nvarchar","bigint","int"]
