SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id], [_1].[title] AS [title]
    FROM (
      SELECT [_0].[id] AS [id], [_0].[title] AS [title]
      FROM [dbo].[albums] AS [_0]
      WHERE (([_0].[id] IN (
        SELECT [value]
        FROM OPENJSON(@p1))) AND ([_0].[title] LIKE @p2) AND (NOT ([_0].[title] NOT LIKE @p3)) AND (([_0].[artist_id] NOT IN (
        SELECT [value]
        FROM OPENJSON(@p4))) OR ([_0].[artist_id] IS NULL) OR EXISTS (
        SELECT 1
        FROM [dbo].[artists] AS [_2]
        WHERE ([_2].[id] = [_0].[artist_id] AND ([_2].[name] >= @p5)))))) AS [_1] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [albums] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":[1,2,3]},{"kind":"const","value":"A%"},{"kind":"const","value":"%x"},{"kind":"variable","name":"ids","encoding":"plain","allowNull":false},{"kind":"const","value":"B"}]
-- types: ["int[]","nvarchar","nvarchar","int[]","nvarchar"]
