# NamedByteSequence streams (docs/transfer.md): bulk data — corpus entries, crash artifacts,
# reports — as a byte stream of records {u32 nameLength; u32 size; name; data}, cut into
# chunks that the receiver asks for with credit (zguide ch. 7, "file transfer").
#
# A StreamMessage travels on its own (one ZeroMQ frame, transfer/stream_socket.h) or inside
# another protocol's message (the controller's). Receivers treat every field as untrusted:
# transfer/stream_message.h bounds and checks them. Ordinals are never reused; new fields
# are only appended.
@0xeeda4743b6fe97b3;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("pollen::schema");

const transferProtocolVersion :UInt32 = 1;

struct StreamMessage {
  streamId @0 :UInt64;          # chosen by the side that opens; names the stream in every message

  union {
    open @1 :StreamOpen;
    chunk @2 :StreamChunk;
    credit @3 :StreamCredit;
    end @4 :StreamEnd;
    error @5 :StreamError;
  }
}

# Receiver -> sender: "send me `resource`, the records whose names are greater than
# `resumeAfter` (all of them when empty), and here is credit for the first chunks".
struct StreamOpen {
  protocolVersion @0 :UInt32;   # transferProtocolVersion
  resource @1 :Text;            # what to stream; its meaning is the sender's (e.g. "corpus")
  resumeAfter @2 :Text;         # a record name, or empty
  credit @3 :UInt32;            # chunks the receiver accepts now
}

# Sender -> receiver: bytes [seq * chunkSize, ...) of the record stream. Chunk boundaries do
# not follow record boundaries. seq counts from 0; `last` marks the end of the stream.
struct StreamChunk {
  seq @0 :UInt64;
  data @1 :Data;
  last @2 :Bool;
}

# Receiver -> sender: `chunks` more chunks may be sent.
struct StreamCredit {
  chunks @0 :UInt32;
}

# Receiver -> sender, after the last chunk: everything was committed; the totals let the
# sender check that nothing went missing.
struct StreamEnd {
  records @0 :UInt64;
  bytes @1 :UInt64;             # record data bytes, names and headers excluded
  chunks @2 :UInt64;
}

# Either side: the stream is abandoned; the text says why. No other message of the stream
# follows it.
struct StreamError {
  text @0 :Text;
}
