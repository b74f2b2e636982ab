import AppStoreServer

extension TransactionSummary {
    /// One line for people: id, product, state, date, amount; a refund (which has a reason) or another revocation
    /// (a family member leaving) with its date.
    var line: String {
        var text = "\(transactionId)  \(productId)  \(state)  \(purchaseDate)  \(amountCharged) \(currency)"
        if quantity > 1 { text += "  ×\(quantity)" }
        if originalTransactionId != transactionId { text += "  (\(origin) of \(originalTransactionId))" }
        if let offerDiscountType { text += "  offer \(offerIdentifier.map { "\($0) " } ?? "")\(offerDiscountType)" }
        if let revocationDate { text += "  \(revocationReason == nil ? "revoked" : "refunded") \(revocationDate)" }
        return text + "  [\(account)]"
    }
}
