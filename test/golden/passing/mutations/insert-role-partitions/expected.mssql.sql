SET NOCOUNT ON;
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action] INTO [#written]
FROM [dbo].[tracks] AS [_t]
UNION ALL
SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10))
FROM [dbo].[tracks] AS [_t]; MERGE INTO [dbo].[tracks] AS [_t] USING (
  SELECT [_r].[album_id] AS [album_id], [_r].[name] AS [name], [_p].[genre_id] AS [genre_id], CAST([_j].[key] AS BIGINT) AS [__ord]
  FROM OPENJSON(@p1) AS [_j] CROSS APPLY OPENJSON([_j].[value]) WITH ([album_id] NVARCHAR(MAX) N'$."album_id"', [name] NVARCHAR(MAX) N'$."name"') AS [_r] CROSS APPLY OPENJSON(@p2) WITH ([genre_id] NVARCHAR(MAX) N'$."genre_id"') AS [_p]
  WHERE EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'name') AND EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'album_id') AND NOT EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'milliseconds')) AS [_s] ON (1 = 0) WHEN NOT MATCHED THEN INSERT ([album_id], [name], [genre_id]) VALUES ([_s].[album_id], [_s].[name], [_s].[genre_id]) OUTPUT INSERTED.*, [_s].[__ord], $action INTO [#written]; MERGE INTO [dbo].[tracks] AS [_t] USING (
  SELECT [_r].[milliseconds] AS [milliseconds], [_r].[name] AS [name], [_p].[genre_id] AS [genre_id], CAST([_j].[key] AS BIGINT) AS [__ord]
  FROM OPENJSON(@p3) AS [_j] CROSS APPLY OPENJSON([_j].[value]) WITH ([milliseconds] NVARCHAR(MAX) N'$."milliseconds"', [name] NVARCHAR(MAX) N'$."name"') AS [_r] CROSS APPLY OPENJSON(@p4) WITH ([genre_id] NVARCHAR(MAX) N'$."genre_id"') AS [_p]
  WHERE EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'name') AND NOT EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'album_id') AND EXISTS (
    SELECT 1
    FROM OPENJSON([_j].[value]) AS [_k]
    WHERE [_k].[key] = N'milliseconds')) AS [_s] ON (1 = 0) WHEN NOT MATCHED THEN INSERT ([milliseconds], [name], [genre_id]) VALUES ([_s].[milliseconds], [_s].[name], [_s].[genre_id]) OUTPUT INSERTED.*, [_s].[__ord], $action INTO [#written]; IF EXISTS (
  SELECT 1
  FROM [#written] AS [_0]
  WHERE [_0].[__action] = N'INSERT' AND NOT (CASE WHEN EXISTS (
    SELECT 1
    FROM [dbo].[albums] AS [_1]
    WHERE ([_1].[id] = [_0].[album_id] AND ([_1].[artist_id] = @p5))) THEN 1 ELSE 0 END = 1)) BEGIN THROW 50001, N'check constraint of an insert permission has failed', 1; END;
SELECT (
  SELECT (
    SELECT COUNT(*)
    FROM [#written]) AS [affected_rows], JSON_QUERY(ISNULL((
    SELECT [_2].[name] AS [name]
    FROM [#written] AS [_2]
    ORDER BY [_2].[__ord] FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')) AS [returning] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];;
-- params: [{"kind":"const","value":"[{\"name\":\"a\",\"album_id\":1},{\"name\":\"b\",\"milliseconds\":3}]"},{"kind":"json-doc","doc":{"kind":"object","fields":[["genre_id",{"kind":"const","value":1}]]}},{"kind":"const","value":"[{\"name\":\"a\",\"album_id\":1},{\"name\":\"b\",\"milliseconds\":3}]"},{"kind":"json-doc","doc":{"kind":"object","fields":[["genre_id",{"kind":"const","value":1}]]}},{"kind":"session","name":"x-engine-user-id","encoding":"plain"}]
-- types: ["nvarchar","nvarchar","nvarchar","nvarchar","int"]
