"""The Customer Engagement Suite's golden-evaluation criteria (docs/ces.md)."""
