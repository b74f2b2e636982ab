// B.11 Message, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

@Suite("B.11 Message has Apple's declarations")
struct MessageConformance {
    @Test("B.11 Message: its reason, display(in:), the messages sequence and the reasons")
    @MainActor
    func message() {
        // B.11 Message — struct: Equatable, Hashable, Sendable
        requireHashable(Message.self)
        requireSendable(Message.self)
        // B.11 Message.reason
        let _: KeyPath<Message, Message.Reason> = \.reason
        // B.11 Message.display(in:) — @MainActor, throws
        let _: @MainActor (Message, UIWindowScene) throws -> Void = { try $0.display(in: $1) }
        // B.11 Message.messages
        let _: () -> Message.Messages = { Message.messages }
        // B.11 Message.Messages — AsyncSequence of Message, Sendable
        requireAsyncSequence(Message.Messages.self, element: Message.self)
        requireSendable(Message.Messages.self)
        // B.11 Message.Reason — struct: Hashable, Sendable
        requireHashable(Message.Reason.self)
        requireSendable(Message.Reason.self)
        // B.11 Message.Reason.generic, priceIncreaseConsent, billingIssue (iOS 16.4), winBackOffer (iOS 18)
        #expect(Set([Message.Reason.generic, .priceIncreaseConsent, .billingIssue, .winBackOffer]).count == 4)
        // B.11 Message.Reason.localizedDescription
        let _: KeyPath<Message.Reason, String> = \.localizedDescription
    }
}
