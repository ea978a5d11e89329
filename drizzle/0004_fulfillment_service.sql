ALTER TABLE "shop_settings" ADD COLUMN "fulfillment_mode" text DEFAULT 'merchant' NOT NULL;--> statement-breakpoint
ALTER TABLE "shop_settings" ADD COLUMN "fulfillment_service" jsonb;