CREATE TABLE "data_requests" (
	"shop" text NOT NULL,
	"request_id" text NOT NULL,
	"report" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "data_requests_shop_request_id_pk" PRIMARY KEY("shop","request_id")
);
--> statement-breakpoint
CREATE TABLE "order_bodies" (
	"shop" text NOT NULL,
	"order_id" text NOT NULL,
	"shopify_updated_at" text NOT NULL,
	"body" text,
	"reduced_at" timestamp with time zone,
	CONSTRAINT "order_bodies_shop_order_id_pk" PRIMARY KEY("shop","order_id")
);
--> statement-breakpoint
CREATE TABLE "order_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"shop" text NOT NULL,
	"order_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"entry" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"shop" text NOT NULL,
	"order_id" text NOT NULL,
	"order_name" text,
	"status" text NOT NULL,
	"status_at" timestamp with time zone NOT NULL,
	"source_order_id" text,
	"print_order_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"version" integer NOT NULL,
	"data" jsonb NOT NULL,
	CONSTRAINT "orders_shop_order_id_pk" PRIMARY KEY("shop","order_id")
);
--> statement-breakpoint
CREATE TABLE "shopify_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"shop" text NOT NULL,
	"is_online" integer NOT NULL,
	"session" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shops" (
	"shop" text PRIMARY KEY NOT NULL,
	"active_since" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "source_order_ids" (
	"source_order_id" text PRIMARY KEY NOT NULL,
	"shop" text NOT NULL,
	"order_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "unreadable_postbacks" (
	"id" text PRIMARY KEY NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"headers" jsonb NOT NULL,
	"body" text NOT NULL,
	"error" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "order_history_order_idx" ON "order_history" USING btree ("shop","order_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_updated_idx" ON "orders" USING btree ("updated_at","shop","order_id");--> statement-breakpoint
CREATE INDEX "orders_shop_updated_idx" ON "orders" USING btree ("shop","updated_at","order_id");--> statement-breakpoint
CREATE INDEX "orders_status_idx" ON "orders" USING btree ("status","status_at","shop","order_id");--> statement-breakpoint
CREATE INDEX "orders_status_updated_idx" ON "orders" USING btree ("status","updated_at","shop","order_id");--> statement-breakpoint
CREATE INDEX "orders_shop_status_idx" ON "orders" USING btree ("shop","status","status_at");--> statement-breakpoint
CREATE INDEX "orders_name_idx" ON "orders" USING btree ("order_name");--> statement-breakpoint
CREATE INDEX "orders_source_idx" ON "orders" USING btree ("source_order_id");--> statement-breakpoint
CREATE INDEX "orders_print_idx" ON "orders" USING btree ("print_order_id");--> statement-breakpoint
CREATE INDEX "shopify_sessions_shop_idx" ON "shopify_sessions" USING btree ("shop");--> statement-breakpoint
CREATE INDEX "unreadable_postbacks_received_idx" ON "unreadable_postbacks" USING btree ("received_at" DESC NULLS LAST);