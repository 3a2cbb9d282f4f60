SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id]
    FROM (
      SELECT [_0].[id] AS [id]
      FROM [dbo].[albums] AS [_0]
      WHERE (([_0].[title] = @p1) AND ([_0].[id] IN (
        SELECT [value]
        FROM OPENJSON(@p2))))) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [albums] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":"x"},{"kind":"const","value":[1,2]}]
-- types: ["nvarchar","int[]"]
