CREATE TABLE "flow_triggers" (
	"shop" text NOT NULL,
	"handle" text NOT NULL,
	"enabled" boolean NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "flow_triggers_shop_handle_pk" PRIMARY KEY("shop","handle")
);
--> statement-breakpoint
ALTER TABLE "shop_settings" ADD COLUMN "app_holds" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "shop_settings" ADD COLUMN "hold_policy" jsonb;