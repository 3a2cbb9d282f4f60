SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[tracks] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[tracks] AS [_t]; UPDATE [_0]
SET [name] = [_1].[name] OUTPUT INSERTED.*, CAST(0 AS BIGINT), N'UPDATE' INTO [#written]
FROM [dbo].[tracks] AS [_0] CROSS APPLY OPENJSON(@p1) WITH ([name] NVARCHAR(MAX) N'$."name"') AS [_1]
WHERE (EXISTS (
  SELECT 1
  FROM [dbo].[albums] AS [_2]
  WHERE ([_2].[id] = [_0].[album_id] AND ([_2].[artist_id] = @p2))) AND ([_0].[id] = @p3)); IF EXISTS (
  SELECT 1
  FROM [#written] AS [_3]
  WHERE NOT (CASE WHEN ([_3].[milliseconds] > @p4) THEN 1 ELSE 0 END = 1)) BEGIN THROW 50001, N'check constraint of an update permission has failed', 1; END;
SELECT (
  SELECT (
    SELECT COUNT(*)
    FROM [#written]) AS [affected_rows] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":"{\"name\":\"n\"}"},{"kind":"session","name":"x-engine-user-id","encoding":"plain"},{"kind":"const","value":1},{"kind":"const","value":0}]
-- types: ["nvarchar","int","int","int"]
