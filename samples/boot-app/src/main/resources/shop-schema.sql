-- The shop's table for an application without Liquibase (ShopWithoutChangelogTest).
CREATE TABLE IF NOT EXISTS orders (id varchar(64) PRIMARY KEY, customer varchar(64) NOT NULL, cents bigint NOT NULL);
