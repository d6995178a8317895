/*
 * CRC-32 (the IEEE 802.3 polynomial, reflected), bit by bit and with a
 * table built on first use. Part of the lifter/tracer measurement corpus.
 */
#include <stddef.h>
#include <stdint.h>

uint32_t crc32_bitwise(const unsigned char *buf, size_t len)
{
	uint32_t crc = 0xFFFFFFFFu;
	for (size_t i = 0; i < len; i++) {
		crc ^= buf[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static uint32_t crc32_table[256];
static int crc32_table_ready;

void crc32_init_table(void)
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++)
			c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc32_table[n] = c;
	}
	crc32_table_ready = 1;
}

uint32_t crc32_table_driven(const unsigned char *buf, size_t len)
{
	if (!crc32_table_ready)
		crc32_init_table();
	uint32_t crc = 0xFFFFFFFFu;
	for (size_t i = 0; i < len; i++)
		crc = crc32_table[(crc ^ buf[i]) & 0xFFu] ^ (crc >> 8);
	return ~crc;
}
