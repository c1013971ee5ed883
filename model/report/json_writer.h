#pragma once
// Minimal streaming JSON writer: exact int64, shortest round-trip doubles, escaped UTF-8.
// Not a DOM: callers write keys and values in order; commas are handled here.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spanscope::model::report {

class JsonWriter
{
public:
    explicit JsonWriter(int indent = 2) : m_indent(indent) {}

    void beginObject() { open('{'); }
    void endObject() { close('}'); }
    void beginArray() { open('['); }
    void endArray() { close(']'); }
    void key(std::string_view name);

    void value(std::string_view text);
    void value(const char* text) { value(std::string_view(text)); }
    void value(int64_t number);
    void value(uint64_t number);
    void value(int number) { value(int64_t(number)); }
    void value(double number);
    void value(bool flag);
    void null();
    template <typename T>
    void value(const std::optional<T>& maybe)
    {
        if (maybe)
            value(*maybe);
        else
            null();
    }
    template <typename T>
    void field(std::string_view name, const T& v)
    {
        key(name);
        value(v);
    }

    const std::string& text() const { return m_out; }

    static std::string escape(std::string_view text);

private:
    void open(char bracket);
    void close(char bracket);
    void beforeValue();
    void newline();

    std::string m_out;
    int m_indent;
    std::vector<bool> m_hasItems; // per open container
    bool m_afterKey = false;
};

} // namespace spanscope::model::report
