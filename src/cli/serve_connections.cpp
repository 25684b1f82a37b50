#include "serve_connections.h"

#include <pthread.h>

#include <utility>

namespace han::cli {

void ConnectionPool::enqueue(std::function<void()> connection) {
  ++counts_.waiting;
  httplib::ThreadPool::enqueue([this, connection = std::move(connection)] {
    pthread_setname_np(pthread_self(), "han-http");  // for top -H and perf
    --counts_.waiting;
    ++counts_.served;
    connection();  // httplib's: it catches what the handlers throw and closes the socket
    --counts_.served;
  });
}

}  // namespace han::cli
