import AppStoreEngine
import Foundation

extension Product {
    /// A promoted in-app purchase as this device shows it on the App Store: its place in the order and whether it is
    /// visible. The same overrides as `SKProductStorePromotionController`.
    public struct PromotionInfo: Equatable, Sendable {
        /// The promoted product.
        public let productID: Product.ID
        /// Whether the product shows on the App Store for this customer.
        public var visibility: Product.PromotionInfo.Visibility

        /// Whether a promoted product shows on the App Store.
        public enum Visibility: Sendable, Hashable {
            /// As set in App Store Connect (the configuration).
            case appStoreConnectDefault
            /// Shown.
            case visible
            /// Hidden.
            case hidden

            init(rawValue: Int?) {
                self = switch rawValue {
                case 1: .visible
                case 2: .hidden
                default: .appStoreConnectDefault
                }
            }

            /// `SKProductStorePromotionVisibility`'s raw value; `nil` for the default.
            var rawValue: Int? {
                switch self {
                case .appStoreConnectDefault: nil
                case .visible: 1
                case .hidden: 2
                }
            }
        }

        /// Describes a promotion.
        public init(productID: Product.ID, visibility: Product.PromotionInfo.Visibility) {
            self.productID = productID
            self.visibility = visibility
        }

        /// Saves this product's visibility.
        ///
        /// - Throws: ``StoreKitError/notAvailableInStorefront`` when the store does not sell the product.
        public func update() async throws {
            try await Self.updateProductVisibility(visibility, for: productID)
        }

        /// The promoted products in their order on this device, with their visibility: the overridden order first,
        /// then the other products whose visibility is overridden.
        ///
        /// - Throws: ``StoreKitError`` when the process has no store.
        public static var currentOrder: [Product.PromotionInfo] {
            get async throws {
                let state = try deviceState().current
                var order = state.promotionOrder
                order += state.promotionVisibility.keys.sorted().filter { !order.contains($0) }
                return order.map { PromotionInfo(productID: $0, visibility: Visibility(rawValue: state.promotionVisibility[$0])) }
            }
        }

        /// Saves the order and the visibility of the promotions; an empty collection removes every override.
        ///
        /// - Throws: ``StoreKitError/notAvailableInStorefront`` when the store does not sell one of the products.
        public static func updateAll(_ promotions: some Collection<Product.PromotionInfo>) async throws {
            let promotions = Array(promotions)
            try await requireSold(promotions.map(\.productID))
            try deviceState().update { state in
                state.promotionOrder = promotions.map(\.productID)
                state.promotionVisibility = promotions.isEmpty ? [:] : state.promotionVisibility
                for promotion in promotions { state.promotionVisibility[promotion.productID] = promotion.visibility.rawValue }
            }
        }

        /// Saves the order of the promoted products; an empty collection removes the override.
        ///
        /// - Throws: ``StoreKitError/notAvailableInStorefront`` when the store does not sell one of the products.
        public static func updateProductOrder(byID order: some Collection<Product.ID>) async throws {
            let ids = Array(order)
            try await requireSold(ids)
            try deviceState().update { $0.promotionOrder = ids }
        }

        /// Saves the visibility of one product.
        ///
        /// - Throws: ``StoreKitError/notAvailableInStorefront`` when the store does not sell the product.
        public static func updateProductVisibility(_ visibility: Product.PromotionInfo.Visibility, for productID: Product.ID) async throws {
            try await requireSold([productID])
            try deviceState().update { $0.promotionVisibility[productID] = visibility.rawValue }
        }

        private static func deviceState() throws(StoreKitError) -> DeviceStateStore {
            DeviceStateStore.forAppDirectory(try StoreKitDevice.current().environment.appDirectory)
        }

        private static func requireSold(_ ids: [Product.ID]) async throws {
            let device = try StoreKitDevice.current()
            let sold = try await device.call { connection throws(StoreError) in try await connection.products(for: Set(ids)) }
            if ids.contains(where: { id in !sold.contains { $0.id == id } }) { throw StoreKitError.notAvailableInStorefront }
        }
    }
}
