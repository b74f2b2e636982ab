public import Foundation

/// What the Retention Messaging API keeps for one app of a tenant: uploaded images and messages with their review
/// states, the default message of each product and locale, and the Get Retention Message URL.
///
/// An app's content is a row of its tenant's storage (``StorageChange/saveRetentionMessaging(bundleID:_:)``), so every
/// server on the storage answers the same lists and a restart keeps them. It is configuration, like the catalog: erasing,
/// resetting or restoring the tenant leaves it, and snapshots do not carry it. Performance tests are runs, not content,
/// and stay with the server that runs them.
public struct RetentionMessagingContent: Sendable, Hashable, Codable {
    /// An uploaded image; its bytes are checked and dropped, as nothing shows them.
    public struct Image: Sendable, Hashable, Codable {
        /// The image's identifier.
        public var id: UUID
        /// Apple's image size: `FULL_SIZE` or `BULLET_POINT`.
        public var size: String
        /// Apple's review state: `PENDING`, `APPROVED` or `REJECTED`.
        public var state: String

        /// Describes an image.
        public init(id: UUID, size: String, state: String) {
            self.id = id
            self.size = size
            self.state = state
        }
    }

    /// An uploaded message and the images it shows: its own, then its bullet points'.
    public struct Message: Sendable, Hashable, Codable {
        /// The message's identifier.
        public var id: UUID
        /// The images the message shows.
        public var imageIDs: [UUID]
        /// Apple's review state: `PENDING`, `APPROVED` or `REJECTED`.
        public var state: String

        /// Describes a message.
        public init(id: UUID, imageIDs: [UUID], state: String) {
            self.id = id
            self.imageIDs = imageIDs
            self.state = state
        }
    }

    /// The message shown by default for a product in a locale.
    public struct DefaultMessage: Sendable, Hashable, Codable {
        /// The product.
        public var productID: String
        /// The locale, as the Configure Default Message request names it.
        public var locale: String
        /// The message.
        public var messageID: UUID

        /// Describes a default message.
        public init(productID: String, locale: String, messageID: UUID) {
            self.productID = productID
            self.locale = locale
            self.messageID = messageID
        }
    }

    /// The images, in upload order.
    public var images: [Image]
    /// The messages, in upload order.
    public var messages: [Message]
    /// The default messages, in the order configured.
    public var defaults: [DefaultMessage]
    /// The Get Retention Message URL, if configured.
    public var realtimeURL: URL?

    /// Describes an app's content; the defaults describe an app with none.
    public init(images: [Image] = [], messages: [Message] = [], defaults: [DefaultMessage] = [], realtimeURL: URL? = nil) {
        self.images = images
        self.messages = messages
        self.defaults = defaults
        self.realtimeURL = realtimeURL
    }

    /// Whether the app has no content at all.
    public var isEmpty: Bool {
        images.isEmpty && messages.isEmpty && defaults.isEmpty && realtimeURL == nil
    }
}
