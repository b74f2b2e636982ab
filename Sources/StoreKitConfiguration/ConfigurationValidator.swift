/// The rules that need more than one value: product IDs are unique across every list, group ids are
/// unique, and each subscription's `subscriptionGroupID` names the group that lists it.
///
/// ``ConfigurationDecoder`` feeds it each identifier as it reads the file in Xcode's key order
/// (`nonRenewingSubscriptions`, `products`, …, `subscriptionGroups`), so these issues come out in file
/// order with the others, and "already used by" always points upwards in the file. Per-value rules
/// (prices, periods, types, payment modes, storefront, time rate) live in the decoder, next to the path.
final class ConfigurationValidator {
    private let issues: IssueCollector
    private var productIDs: [String: String] = [:]
    private var groupIDs: [String: String] = [:]
    /// Every group id in the file, read ahead so a subscription can name a later group in its message.
    private var allGroupIDs: [String: String] = [:]

    init(issues: IssueCollector) {
        self.issues = issues
    }

    /// Records the group ids of the raw `subscriptionGroups` array before its groups are decoded.
    func prescanGroups(_ elements: [(value: ConfigurationJSON, path: String)]) {
        for element in elements {
            guard case .object(let members) = element.value, case .string(let id)? = members["id"] else { continue }
            if allGroupIDs[id] == nil { allGroupIDs[id] = element.path }
        }
    }

    /// StoreKit has one namespace for product identifiers, whatever list a product sits in.
    func checkProductID(_ id: String, at path: String) {
        if let earlier = productIDs[id] {
            issues.add(
                .duplicateProductID, at: path, "\"\(id)\" is already the productID of \(owner(of: earlier)).",
                fix: "Product IDs are shared by every list in the file; give this product its own productID.")
        } else {
            productIDs[id] = path
        }
    }

    func checkGroupID(_ id: String, at path: String) {
        if let earlier = groupIDs[id] {
            issues.add(
                .duplicateGroupID, at: path, "\"\(id)\" is already the id of \(owner(of: earlier)).",
                fix: "Give each subscription group its own id (Xcode uses 8 hex digits).")
        } else {
            groupIDs[id] = path
        }
    }

    /// Checks a subscription's `subscriptionGroupID` against the group that lists it.
    func checkSubscriptionGroupID(_ groupID: String, at path: String, listedIn groupIndex: Int, listedInGroupID enclosing: String?) {
        guard let enclosing, groupID != enclosing else { return }
        if let other = allGroupIDs[groupID] {
            issues.add(
                .unknownSubscriptionGroup, at: path,
                "\"\(groupID)\" is the id of \(other), but the subscription is listed in subscriptionGroups[\(groupIndex)].",
                fix: "Set it to \"\(enclosing)\", or move the subscription into \(other).")
        } else {
            issues.add(
                .unknownSubscriptionGroup, at: path, "\"\(groupID)\" matches no subscription group.",
                fix: "Set it to \"\(enclosing)\", the id of the group that lists this subscription.")
        }
    }

    /// `products[1].productID` → `products[1]`.
    private func owner(of path: String) -> String {
        guard let dot = path.lastIndex(of: ".") else { return path }
        return String(path[..<dot])
    }
}
