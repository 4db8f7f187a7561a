-- Every spelling that names a model, with the canonical key it names and what kind of
-- spelling it is: the key itself, its display name (models) or an alias (model_aliases:
-- dashed slugs, backend ids, archive aliases, lower-cased). The one table readers resolve a
-- model name with (etl/filters.py model_key: exactly as written first, then ignoring case).
SELECT model AS name, model, 'key' AS kind FROM runs WHERE model IS NOT NULL
UNION
SELECT model, model, 'key' FROM models
UNION
SELECT display_name, model, 'display' FROM models WHERE display_name IS NOT NULL
UNION
SELECT alias, model, 'alias' FROM model_aliases
ORDER BY name, model, kind
