-- The explorer's glossary of the failure labels (table failures, from the registry
-- etl/failures/registry.py), in registry order.
SELECT failure, title, description, example, levels, is_error
FROM failures
ORDER BY position
