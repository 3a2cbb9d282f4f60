SELECT (
  SELECT @p1 AS [__typename], JSON_QUERY(@p2) AS [__type] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data];
-- params: [{"kind":"const","value":"query_root"},{"kind":"const","value":"{\"name\":\"albums\"}"}]
-- types: ["nvarchar","nvarchar"]
