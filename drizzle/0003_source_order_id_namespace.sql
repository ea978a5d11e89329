-- A sourceOrderId is claimed per print account (issue 22): the operator's account is `env`, a store's own account
-- `shop:DOMAIN`. Existing claims take the account their order went out with.
ALTER TABLE "source_order_ids" ADD COLUMN "namespace" text DEFAULT 'env' NOT NULL;--> statement-breakpoint
UPDATE "source_order_ids" s SET "namespace" = 'shop:' || s."shop" FROM "orders" o WHERE o."shop" = s."shop" AND o."order_id" = s."order_id" AND o."data"->>'printAccount' = 'own';--> statement-breakpoint
ALTER TABLE "source_order_ids" DROP CONSTRAINT "source_order_ids_pkey";--> statement-breakpoint
ALTER TABLE "source_order_ids" ADD CONSTRAINT "source_order_ids_namespace_source_order_id_pk" PRIMARY KEY("namespace","source_order_id");
