SELECT (
  SELECT JSON_QUERY(ISNULL((
    SELECT [_1].[id] AS [id]
    FROM (
      SELECT [_0].[id] AS [id], (
        SELECT TOP (1) (
          SELECT TOP (1) [_3].[name]
          FROM [dbo].[artists] AS [_3]
          WHERE [_3].[id] = [_2].[artist_id])
        FROM [dbo].[albums] AS [_2]
        WHERE [_2].[id] = [_0].[album_id]) AS [__o0], (
        SELECT TOP (1) [_6].[title]
        FROM [dbo].[albums] AS [_6]
        WHERE [_6].[id] = [_0].[album_id]) AS [__o1]
      FROM [dbo].[tracks] AS [_0]) AS [_1]
    ORDER BY [_1].[__o0] ASC, [_1].[__o1] DESC FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [tracks], JSON_QUERY(ISNULL((
    SELECT [_9].[id] AS [id]
    FROM (
      SELECT [_8].[id] AS [id], (
        SELECT COUNT(*)
        FROM [dbo].[albums] AS [_10]
        WHERE [_10].[artist_id] = [_8].[id]) AS [__o0], (
        SELECT MAX([_12].[id])
        FROM [dbo].[albums] AS [_12]
        WHERE [_12].[artist_id] = [_8].[id]) AS [__o1]
      FROM [dbo].[artists] AS [_8]) AS [_9]
    ORDER BY [_9].[__o0] DESC, [_9].[__o1] ASC FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [artists] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: []
-- types: []
