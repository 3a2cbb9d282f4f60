SELECT (
  SELECT JSON_QUERY((
    SELECT TOP (1) [_1].[id] AS [id], [_1].[title] AS [title], N'albums' AS [__typename]
    FROM (
      SELECT [_0].[id] AS [id], [_0].[title] AS [title]
      FROM [dbo].[albums] AS [_0]
      WHERE ([_0].[id] = @p1)) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)) AS [albums_by_pk] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"variable","name":"id","encoding":"plain","allowNull":false}]
-- types: ["int"]
