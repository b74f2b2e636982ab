extension CompactJWS {
    /// The header with each `x5c` certificate shortened to its length, so that a person can read it.
    public var readableHeader: JSONValue {
        guard case .object(let members) = header else { return header }
        return .object(members.map { member in
            guard member.key == "x5c", case .array(let entries) = member.value else { return member }
            return .init(key: "x5c", value: .array(entries.map { .string("<\(($0.stringValue ?? "").count) base64 characters>") }))
        })
    }
}

extension JSONValue {
    /// The value with every string member whose key starts with `signed` and that holds a compact JWS replaced by
    /// that JWS's payload, at any depth: a notification's `signedTransactionInfo` and `signedRenewalInfo` read in
    /// place.
    public func expandingSignedFields() -> JSONValue {
        switch self {
        case .object(let members):
            return .object(members.map { member in
                if member.key.hasPrefix("signed"), let token = member.value.stringValue, let payload = try? CompactJWS(token).payloadJSON {
                    return Member(key: member.key, value: payload.expandingSignedFields())
                }
                return Member(key: member.key, value: member.value.expandingSignedFields())
            })
        case .array(let values):
            return .array(values.map { $0.expandingSignedFields() })
        default:
            return self
        }
    }
}
