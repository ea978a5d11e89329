CREATE TABLE "mapping_versions" (
	"shop" text NOT NULL,
	"version" integer NOT NULL,
	"yaml" text NOT NULL,
	"note" text,
	"author" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mapping_versions_shop_version_pk" PRIMARY KEY("shop","version")
);
--> statement-breakpoint
CREATE TABLE "postback_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"shop" text NOT NULL,
	"token" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "shop_settings" (
	"shop" text PRIMARY KEY NOT NULL,
	"mode" text DEFAULT 'live' NOT NULL,
	"print_account" jsonb,
	"account_check" jsonb,
	"test_validated_at" timestamp with time zone,
	"mapping_version" integer,
	"revision" integer DEFAULT 1 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "postback_tokens_shop_idx" ON "postback_tokens" USING btree ("shop");