import Stripe from "stripe";

export const DEFAULT_CURRENCY = "eur";

export class StripeClient {
  private readonly stripe: Stripe;

  constructor(apiKey: string) {
    this.stripe = new Stripe(apiKey);
  }

  /** Charges are created with an idempotency key derived from the order id. */
  async createCharge(orderId: string, amountCents: number) {
    return this.stripe.paymentIntents.create(
      { amount: amountCents, currency: DEFAULT_CURRENCY, metadata: { orderId } },
      { idempotencyKey: `order-${orderId}` },
    );
  }

  async refund(paymentIntentId: string) {
    return this.stripe.refunds.create({ payment_intent: paymentIntentId });
  }
}
