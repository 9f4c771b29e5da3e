package com.example.shop;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The shop's security, as docs/console.md tells an application to guard the outbox console: the
 * console's path needs an operator; the rest of this sample stays open, as it was before it had a
 * console. The shop's API and the Actuator take JSON bodies only, and the console refuses actions
 * that are not JSON or come from another origin itself, so they do without Spring's CSRF tokens.
 * A real application keeps its own rules and adds the console's path to what operators may reach.
 */
@Configuration(proxyBeanMethods = false)
class OperatorSecurity {

  @Bean
  SecurityFilterChain shopSecurity(HttpSecurity http) throws Exception {
    http.authorizeHttpRequests(
            requests ->
                requests
                    .requestMatchers("/actuator/outbox-console/**")
                    .hasRole("OPERATOR")
                    .anyRequest()
                    .permitAll())
        .httpBasic(Customizer.withDefaults())
        .csrf(csrf -> csrf.ignoringRequestMatchers("/orders", "/actuator/**"));
    return http.build();
  }

  @Bean
  UserDetailsService operators(@Value("${shop.operator.password}") String password) {
    return new InMemoryUserDetailsManager(
        User.withUsername("operator").password("{noop}" + password).roles("OPERATOR").build());
  }
}
