// B.8 Product.PromotionInfo, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// Names every case: a case added to or removed from `Product.PromotionInfo.Visibility` breaks this `switch`.
private func name(_ visibility: Product.PromotionInfo.Visibility) -> String {
    switch visibility {
    case .appStoreConnectDefault: "appStoreConnectDefault"
    case .visible: "visible"
    case .hidden: "hidden"
    }
}

@Suite("B.8 Product.PromotionInfo has Apple's declarations")
struct PromotionInfoConformance {
    @Test("B.8 Product.PromotionInfo: a promotion's visibility, the order, and the updates")
    func promotionInfo() {
        typealias Info = Product.PromotionInfo
        // B.8 Product.PromotionInfo — struct: Equatable
        requireEquatable(Info.self)
        // B.8 Product.PromotionInfo.productID
        let _: KeyPath<Info, Product.ID> = \.productID
        // B.8 Product.PromotionInfo.visibility — settable
        let _: WritableKeyPath<Info, Info.Visibility> = \.visibility
        // B.8 Product.PromotionInfo.update()
        let _: (Info) -> () async throws -> Void = Info.update
        // B.8 Product.PromotionInfo.currentOrder — get async throws
        let _: () async throws -> [Info] = { try await Info.currentOrder }
        // B.8 Product.PromotionInfo.updateAll(_:) — some Collection<Product.PromotionInfo>
        let _: ([Info]) async throws -> Void = { try await Info.updateAll($0) }
        // B.8 Product.PromotionInfo.updateProductOrder(byID:) — some Collection<Product.ID>
        let _: ([Product.ID]) async throws -> Void = { try await Info.updateProductOrder(byID: $0) }
        // B.8 Product.PromotionInfo.updateProductVisibility(_:for:)
        let _: (Info.Visibility, Product.ID) async throws -> Void = Info.updateProductVisibility(_:for:)
        // B.8 Product.PromotionInfo.Visibility — enum: appStoreConnectDefault, visible, hidden
        requireHashable(Info.Visibility.self)
        #expect([name(.appStoreConnectDefault), name(.visible), name(.hidden)] == ["appStoreConnectDefault", "visible", "hidden"])
    }
}
