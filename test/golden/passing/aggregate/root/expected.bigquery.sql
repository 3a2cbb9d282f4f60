SELECT TO_JSON_STRING(STRUCT(STRUCT((
  SELECT AS STRUCT CAST(COUNT(*) AS STRING) AS `count`, CAST(COUNT(DISTINCT `_1`.`album_id`) AS STRING) AS `c2`, STRUCT(CAST(SUM(`_1`.`milliseconds`) AS STRING) AS `milliseconds`, CAST(SUM(`_1`.`bytes`) AS STRING) AS `bytes`) AS `sum`, STRUCT(CAST(AVG(`_1`.`unit_price`) AS STRING) AS `unit_price`) AS `avg`, STRUCT(MAX(`_1`.`name`) AS `name`) AS `max`
  FROM (
    SELECT `_0`.*
    FROM `public`.`tracks` AS `_0`
    WHERE (`_0`.`milliseconds` > @p1)) AS `_1`) AS `aggregate`, ARRAY(
  SELECT AS STRUCT CAST(`_3`.`id` AS STRING) AS `id`
  FROM (
    SELECT `_2`.*
    FROM `public`.`tracks` AS `_2`
    WHERE (`_2`.`milliseconds` > @p2)) AS `_3`) AS `nodes`) AS `tracks_aggregate`)) AS `j`;
-- params: [{"kind":"const","value":1000},{"kind":"const","value":1000}]
