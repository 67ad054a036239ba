package dev.tern.web.internal;

/**
 * Turns one message's bytes from one encoding into another: JSON to the protobuf binary form the
 * runtime's marshallers read, or back. Implementations are immutable and thread-safe.
 */
interface MessageTransform {
  /** Leaves messages as they are (the proto codec). */
  MessageTransform IDENTITY =
      new MessageTransform() {
        @Override
        public byte[] toBinary(byte[] message) {
          return message;
        }

        @Override
        public byte[] fromBinary(byte[] message) {
          return message;
        }
      };

  /**
   * A request message as the client sent it, in the call's binary form.
   *
   * @throws dev.tern.StatusRuntimeException INVALID_ARGUMENT if it does not match the message type
   */
  byte[] toBinary(byte[] message);

  /**
   * A response message in the call's binary form, as the client reads it.
   *
   * @throws dev.tern.StatusRuntimeException INTERNAL if it cannot be converted
   */
  byte[] fromBinary(byte[] message);
}
