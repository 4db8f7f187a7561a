-- etl check: how many rejects the tree gave (the listing shows at most --max-rejects).
SELECT count(*) FROM rejects;
