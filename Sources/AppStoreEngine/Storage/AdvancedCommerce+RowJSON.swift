import AppStoreFormats
import Foundation

// The Advanced Commerce parts of transaction and subscription rows, written as their synthesized `Encodable`
// conformances write them (keys as their `CodingKeys` spell them), so `JSONDecoder` reads them back.

extension AdvancedCommerceDescriptors: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.writeIfPresent("description", description)
        json.writeIfPresent("displayName", displayName)
        json.writeIfPresent("effective", effective)
    }
}

extension AdvancedCommerceOffer: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.writeIfPresent("period", period)
        json.writeIfPresent("periodCount", periodCount)
        json.writeIfPresent("price", price)
        json.writeIfPresent("reason", reason)
    }
}

extension AdvancedCommerceRefund: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.writeIfPresent("refundAmount", refundAmount)
        try json.writeIfPresent("refundDate", refundDate)
        json.writeIfPresent("refundReason", refundReason)
        json.writeIfPresent("refundType", refundType)
    }
}

extension AdvancedCommerceTransactionItem: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.writeIfPresent("SKU", sku)
        json.writeIfPresent("description", description)
        json.writeIfPresent("displayName", displayName)
        try json.writeIfPresent("offer", offer)
        json.writeIfPresent("price", price)
        if let refunds { try json.write("refunds", refunds) }
        try json.writeIfPresent("revocationDate", revocationDate)
    }
}

extension AdvancedCommerceTransactionInfo: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        try json.writeIfPresent("descriptors", descriptors)
        json.writeIfPresent("estimatedTax", estimatedTax)
        if let items { try json.write("items", items) }
        json.writeIfPresent("period", period)
        json.writeIfPresent("requestReferenceId", requestReferenceId)
        json.writeIfPresent("taxCode", taxCode)
        json.writeIfPresent("taxExclusivePrice", taxExclusivePrice)
        json.writeIfPresent("taxRate", taxRate)
    }
}

extension AdvancedCommercePriceIncreaseInfo: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        if let dependentSKUs { json.write("dependentSKUs", dependentSKUs) }
        json.writeIfPresent("price", price)
        json.writeIfPresent("status", status)
    }
}

extension AdvancedCommerceRenewalItem: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.writeIfPresent("SKU", sku)
        json.writeIfPresent("description", description)
        json.writeIfPresent("displayName", displayName)
        try json.writeIfPresent("offer", offer)
        json.writeIfPresent("price", price)
        try json.writeIfPresent("priceIncreaseInfo", priceIncreaseInfo)
    }
}

extension AdvancedCommerceRenewalInfo: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.writeIfPresent("consistencyToken", consistencyToken)
        try json.writeIfPresent("descriptors", descriptors)
        if let items { try json.write("items", items) }
        json.writeIfPresent("period", period)
        json.writeIfPresent("requestReferenceId", requestReferenceId)
        json.writeIfPresent("taxCode", taxCode)
    }
}
